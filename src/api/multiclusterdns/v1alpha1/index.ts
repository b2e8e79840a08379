export * from './group.ts';
export * from './types.ts';
