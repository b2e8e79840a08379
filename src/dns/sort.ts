/** Byte-wise string order, as Go's `<` on strings (localeCompare would differ for mixed case and digits). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorted, de-duplicated copy: KubeFed's `sortAndRemoveDuplicateTargets` and `sets.String.List()`. */
export function sortUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
}
