import { assert, assertEquals, assertRejects } from "./assert.ts";
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

Deno.test("Semaphore.first takes a free slot of the first with one, and never holds two", async () => {
  const a = new Semaphore(1), b = new Semaphore(2);
  const r1 = await Semaphore.first([a, b]);
  assertEquals([a.available, b.available], [0, 2]);
  const r2 = await Semaphore.first([a, b]);
  assertEquals([a.available, b.available], [0, 1]);
  r1();
  r2();
  r2();
  assertEquals([a.available, b.available], [1, 2]);
});

Deno.test("Semaphore.first waits in both queues and takes whichever slot comes first; the other goes on", async () => {
  const a = new Semaphore(1), b = new Semaphore(1);
  const ra = await a.acquire(), rb = await b.acquire();
  const either = Semaphore.first([a, b]);
  const onB = b.use(() => Promise.resolve("b's next waiter ran"));
  assertEquals([a.waiting, b.waiting], [1, 2]);
  rb(); // b's slot comes first: taken by `first`, which leaves a's queue
  const release = await either;
  assertEquals([a.waiting, b.waiting, b.available], [0, 1, 0]);
  release(); // b's slot goes on to its next waiter
  assertEquals(await onB, "b's next waiter ran");
  ra();
  assertEquals([a.available, b.available], [1, 1]);
});

Deno.test("Semaphore.first at its deadline leaves every queue and throws late()", async () => {
  const a = new Semaphore(1), b = new Semaphore(1);
  const ra = await a.acquire(), rb = await b.acquire();
  const e = await Semaphore.first([a, b], performance.now() + 5, () => new Error("late")).catch((e) => e);
  assertEquals(e instanceof Error && e.message, "late");
  assertEquals([a.waiting, b.waiting], [0, 0]);
  ra();
  rb();
  assertEquals([a.available, b.available], [1, 1]);
});

Deno.test("Semaphore.first under many holders: each holds one slot at a time, every slot is back at the end", async () => {
  const own = new Semaphore(1), shared = new Semaphore(3), other = new Semaphore(1);
  let held = 0, peak = 0;
  const holder = async (sems: Semaphore[], i: number) => {
    const release = await Semaphore.first(sems);
    peak = Math.max(peak, ++held);
    // Slots taken: at least one per holder (a slot handed to a waiter counts before the waiter runs).
    assert(5 - own.available - shared.available - other.available >= held);
    await new Promise((r) => setTimeout(r, i % 4));
    held--;
    release();
  };
  await Promise.all(Array.from({ length: 60 }, (_, i) => holder(i % 2 ? [own, shared] : [other, shared], i)));
  assert(peak <= 5, `${peak} holders at once`);
  assertEquals([own.available, shared.available, other.available, own.waiting, shared.waiting], [1, 3, 1, 0, 0]);
});
