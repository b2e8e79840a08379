/**
 * Deletes the keys whose value is undefined, in place, and returns the object: objects sent to the API
 * server and compared by JSON must not carry `"key": undefined` noise. Meant for freshly built objects.
 */
export function dropUndefined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as Array<keyof T>) if (obj[key] === undefined) delete obj[key];
  return obj;
}
