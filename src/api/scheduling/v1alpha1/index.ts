export * from './group.ts';
export * from './replicaschedulingpreference.ts';
