import { runService } from '@recipes/runtime';
import { usersService } from './service.js';

await runService(usersService);
