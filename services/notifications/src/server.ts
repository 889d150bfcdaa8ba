import { runService } from '@recipes/runtime';
import { notificationsService } from './service.js';

await runService(notificationsService);
