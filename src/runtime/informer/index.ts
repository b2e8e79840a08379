export * from './informer.ts';
export * from './store.ts';
export * from './transform.ts';
