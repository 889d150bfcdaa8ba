import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources under test, so no build is needed to run them.
  resolve: { conditions: ['@recipes/source'] },
  ssr: { resolve: { conditions: ['@recipes/source'] } },
  test: {
    include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['libs/testing/src/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
