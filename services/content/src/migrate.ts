// Migrations as a step of their own (a Kubernetes Job, a release script): brings the content schema up to date and
// exits, with MIGRATION_DATABASE_URL (a role that may change the schema) or else DATABASE_URL.
import { runMigrations } from '@recipes/runtime';
import { contentService } from './service.js';

await runMigrations(contentService);
