export * from './endpoints.ts';
export * from './load-balancer.ts';
export * from './post-process.ts';
export * from './record-status.ts';
export * from './records.ts';
export * from './service-status.ts';
export * from './types.ts';
