export * from './client.ts';
export * from './errors.ts';
export * from './paths.ts';
export * from './server-url.ts';
export * from './types.ts';
