export * from './duration.ts';
export * from './feature-gates.ts';
export * from './kubefedconfig-defaults.ts';
export * from './kubefedconfig-resolve.ts';
export * from './kubefedconfig-validation.ts';
