/** The current time, injectable so time-window logic is tested by moving a clock, never by sleeping. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
