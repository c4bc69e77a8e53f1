/**
 * Settles as `work` does, or with what `onTimeout` returns (or throws) once `ms` have
 * passed. `work` itself is not cancelled: the caller abandons it.
 */
export function raceDeadline<T, U>(work: Promise<T>, ms: number, onTimeout: () => U): Promise<T | U> {
  return new Promise<T | U>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
