import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // the default keeps a core free for vitest itself, which leaves one worker on a 2-core machine; vitest needs
    // little, and each file has its own databases, so two files run side by side on both cores
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default'],
  },
});
