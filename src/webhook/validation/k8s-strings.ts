// How KubeFed's webhooks word several problems of one value. The apimachinery string validators they
// call are in src/kube/validation.ts.

/** KubeFed joins several messages about one value with a bare comma (strings.Join(errs, ",")). */
export const joinMessages = (msgs: readonly string[]): string => msgs.join(',');
