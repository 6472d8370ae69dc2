/**
 * Lets work a test file scheduled for the next turn of the event loop finish before jest tears the file's
 * environment down — e.g. the one warning per program run about unpinned hosts, logged once the program's
 * synchronous part is done. Logging after teardown fails the whole jest run.
 */
afterAll(() => new Promise<void>((resolve) => setImmediate(resolve)));
