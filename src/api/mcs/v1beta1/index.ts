export * from './group.ts';
export * from './serviceexport.ts';
export * from './serviceimport.ts';
export * from './types.ts';
