/** Runs the tasks given for one name one after the other, in the order given; names never wait for each other. */
export interface NameQueue {
  run: <T>(name: string, task: () => Promise<T>) => Promise<T>;
}

export function createNameQueue(): NameQueue {
  // the settled end of each name's chain; dropped once nothing more is queued behind it
  const tails = new Map<string, Promise<void>>();
  return {
    run: (name, task) => {
      const result = (tails.get(name) ?? Promise.resolve()).then(task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(name, tail);
      void tail.then(() => {
        if (tails.get(name) === tail) tails.delete(name);
      });
      return result;
    },
  };
}
