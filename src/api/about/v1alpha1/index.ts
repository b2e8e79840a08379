export * from './clusterproperty.ts';
export * from './group.ts';
