export * from './default-types.ts';
export * from './defaults.ts';
export * from './deprecated-apis.ts';
export * from './federate-names.ts';
export * from './federated-crd.ts';
export * from './group.ts';
export * from './target.ts';
