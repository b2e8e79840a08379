export * from './clustertaintpolicy.ts';
export * from './group.ts';
export * from './labels.ts';
export * from './overridepolicy.ts';
export * from './propagationpolicy.ts';
export * from './shared.ts';
