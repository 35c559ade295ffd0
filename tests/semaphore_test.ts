import { assertEquals, assertRejects } from "./assert.ts";
import { Semaphore } from "../lib/tmux/semaphore.ts";

Deno.test("semaphore never lets more than N holders run at once", async () => {
  const sem = new Semaphore(3);
  let running = 0;
  let peak = 0;
  await Promise.all(Array.from({ length: 40 }, (_, i) =>
    sem.use(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, i % 3));
      running--;
    })));
  assertEquals(peak, 3);
  assertEquals(sem.available, 3);
});

Deno.test("semaphore hands slots over in FIFO order", async () => {
  const sem = new Semaphore(1);
  const release = await sem.acquire();
  const order: number[] = [];
  const waiters = [0, 1, 2, 3].map((i) => sem.use(() => Promise.resolve(order.push(i))));
  release();
  await Promise.all(waiters);
  assertEquals(order, [0, 1, 2, 3]);
});

Deno.test("semaphore releases the slot when the holder throws", async () => {
  const sem = new Semaphore(1);
  await assertRejects(() => sem.use(() => Promise.reject(new Error("boom"))));
  assertEquals(sem.available, 1);
  assertEquals(await sem.use(() => Promise.resolve(7)), 7);
});

Deno.test("semaphore release is idempotent", async () => {
  const sem = new Semaphore(2);
  const r = await sem.acquire();
  r();
  r();
  assertEquals(sem.available, 2);
});

Deno.test("semaphore refuses a capacity below 1", () => {
  let threw = false;
  try {
    new Semaphore(0);
  } catch {
    threw = true;
  }
  assertEquals(threw, true);
});
