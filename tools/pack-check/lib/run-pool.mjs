// Runs tasks a few at a time where they are independent: a task names the locks it holds while it
// runs (a shared server, its README block), and starts only when none of them is held. Among the
// tasks that could start, the earliest in the list goes first, so tasks sharing a lock keep their order.

/**
 * @param {{ locks: string[], run: () => Promise<void> }[]} tasks
 * @param {number} width how many run at once
 */
export async function runPool(tasks, width) {
  const pending = [...tasks];
  const held = new Set();
  let running = 0;
  await new Promise((resolveAll, rejectAll) => {
    const startMore = () => {
      if (pending.length === 0 && running === 0) return resolveAll();
      // A task that must wait reserves its locks for this pass: no later task sharing one overtakes it.
      const reserved = new Set();
      for (let i = 0; i < pending.length && running < width; i++) {
        const task = pending[i];
        if (task.locks.some((l) => held.has(l) || reserved.has(l))) {
          for (const l of task.locks) reserved.add(l);
          continue;
        }
        pending.splice(i--, 1);
        running++;
        for (const l of task.locks) held.add(l);
        task.run().then(() => {
          running--;
          for (const l of task.locks) held.delete(l);
          startMore();
        }, rejectAll);
      }
    };
    startMore();
  });
}
