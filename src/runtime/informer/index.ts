export * from './informer.ts';
export * from './store.ts';
