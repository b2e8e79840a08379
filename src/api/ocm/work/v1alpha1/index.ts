export * from './manifestworkreplicaset.ts';
