import { configDefaults, defineConfig } from 'vitest/config';

const consumerPacts = '{libs,services}/*/test/**/*.consumer.pact.test.ts';
const image = 'deploy/test/image.test.ts';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources under test, so no build is needed to run them.
  resolve: { conditions: ['@recipes/source'] },
  ssr: { resolve: { conditions: ['@recipes/source'] } },
  test: {
    globalSetup: ['libs/testing/src/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Twice the two cores: a test file mostly waits on PostgreSQL or RabbitMQ, and four at once run the
    // services' files in about 250 s where two took 440 s. The system's files still go one at a time.
    maxWorkers: 4,
    projects: [
      // Consumers write their pacts first, so that providers verify against this run's pacts.
      {
        extends: true,
        test: { name: 'consumer-pacts', include: [consumerPacts], sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: 'services',
          include: ['{libs,services}/*/test/**/*.test.ts', 'deploy/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, consumerPacts, image],
          sequence: { groupOrder: 2 },
        },
      },
      // The whole system as separate processes; one file at a time, as some stop shared servers.
      {
        extends: true,
        test: { name: 'system', include: ['test/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 3 } },
      },
      // The image built and the system run from it (deploy/test/image.test.ts): last and alone, as the build
      // takes both cores for minutes, which would slow the files beside it past their timeouts.
      { extends: true, test: { name: 'image', include: [image], sequence: { groupOrder: 4 } } },
    ],
  },
});
