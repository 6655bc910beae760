// The worker's services, registered in one place. Each adds background work and/or HTTP routes; they all
// share the store, the logger and one HTTP server. Start order is this order; each shutdown stage (drain, then force) reaches every service at once (daemon.ts).

import { wakeService } from "./auto-wake.ts";
import { consoleService } from "./console.ts";
import { executorService } from "./executor.ts";
import { webhookService } from "./inbound-webhooks.ts";
import { webhookDeliveryService } from "./outbound-webhook-delivery.ts";
import { webhookRetentionService } from "./outbound-webhook-retention.ts";
import { presenceService } from "./presence.ts";
import { schedulerService } from "./scheduler.ts";
import { storeRetentionService } from "./store-retention.ts";
import type { ServiceFactory } from "./worker-service.ts";

export const workerServices: ServiceFactory[] = [
  presenceService,
  webhookService,
  schedulerService,
  executorService,
  webhookDeliveryService,
  webhookRetentionService,
  storeRetentionService,
  wakeService,
  consoleService,
];
