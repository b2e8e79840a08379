export * from './client.ts';
export * from './errors.ts';
export * from './paths.ts';
export * from './types.ts';
