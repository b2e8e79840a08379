export * from './group.ts';
export * from './manifestwork.ts';
