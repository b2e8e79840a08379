export * from './workloadrebalancer.ts';
