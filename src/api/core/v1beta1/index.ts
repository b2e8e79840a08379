export * from './federatedtypeconfig.ts';
export * from './group.ts';
export * from './kubefedcluster.ts';
export * from './kubefedconfig.ts';
export * from './resource-types.ts';
