/**
 * Minimal assertions for tests (the Deno standard library is on JSR, which
 * our machines cannot reach). Node's `assert` covers the comparisons.
 */
import nodeAssert from "node:assert/strict";

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  nodeAssert.ok(condition, message);
}

export function assertMatch(actual: string, expected: RegExp, message?: string): void {
  nodeAssert.match(actual, expected, message);
}

export async function assertRejects(fn: () => Promise<unknown>, message?: string): Promise<void> {
  await nodeAssert.rejects(fn, message);
}
