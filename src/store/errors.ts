/**
 * Why a store call failed on our side of the wire: the store was closed, a call outlived its
 * deadline, or a reply had a shape the store cannot return. Failures reported by the client
 * libraries themselves (connection refused, server errors) pass through unchanged.
 */
export type StoreFailure = "closed" | "timeout" | "bad_reply";

export class StoreError extends Error {
  override name = "StoreError";

  constructor(
    readonly failure: StoreFailure,
    message: string,
  ) {
    super(message);
  }
}
