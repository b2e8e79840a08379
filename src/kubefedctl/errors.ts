/** A kubefedctl failure that is printed as one line (`Error: ...`) with a non-zero exit. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}
