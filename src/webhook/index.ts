// Admission webhooks of kubefed-ts: KubeFed's four (FTC, KubeFedCluster, KubeFedConfig validation and
// defaulting), one for Federated<Kind> objects, and Karmada's policy webhooks.

export * from './admission.ts';
export * from './certs.ts';
export * from './configurations.ts';
export * from './federated-finalizer.ts';
export * from './kubefedconfig.ts';
export * from './propagationpolicy.ts';
export { WebhookServer, type WebhookServerOptions } from './server.ts';
export * from './validation/federated-object.ts';
export * from './validation/federatedtypeconfig.ts';
export * from './validation/kubefedcluster.ts';
export * from './validation/overridepolicy.ts';
export * from './validation/propagationpolicy.ts';
