export * from './placement.ts';
