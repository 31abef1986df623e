import type { Client } from '@elastic/elasticsearch';
import type { Redis } from 'ioredis';

/** The two backend connections of one service instance; only the composition root and src/store hold them. */
export interface Clients {
  elasticsearch: Client;
  redis: Redis;
}
