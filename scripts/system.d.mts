export interface StartedSystem {
  services: string[];
  urlOf(service: string): string;
  databaseUrl: string;
  stop(): Promise<unknown>;
}

export function startSystem(options: {
  name: string;
  portOffset: number;
  databaseUrl?: string;
  amqpUrl?: string;
  env?: Record<string, string>;
  logs?: 'ignore' | 'inherit';
}): Promise<StartedSystem>;
