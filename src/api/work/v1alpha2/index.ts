export * from './group.ts';
export * from './resourcebinding.ts';
