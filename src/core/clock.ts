/**
 * The current time in epoch milliseconds, injectable so time-window logic is tested by moving a
 * clock, never by sleeping. The one clock style of the project: every module that needs "now"
 * takes a Clock (default systemClock) and turns it into a Date only where it formats one.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
