export * from './group.ts';
export * from './propagatedversion.ts';
