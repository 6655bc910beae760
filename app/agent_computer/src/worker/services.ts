// The worker's services, registered in one place. Each adds background work and/or HTTP routes; they all
// share the store, the logger and one HTTP server. Start order is this order; each shutdown stage (drain, then force) reaches every service at once (daemon.ts).
import { consoleService } from "./console.ts";
import { executorService } from "./executor.ts";
import { presenceService } from "./presence.ts";
import { schedulerService } from "./scheduler.ts";
import type { ServiceFactory } from "./service.ts";
import { wakeService } from "./wake.ts";
import { webhookDeliveryService } from "./webhook-delivery.ts";
import { webhookRetentionService } from "./webhook-retention.ts";
import { webhookService } from "./webhooks.ts";

export const workerServices: ServiceFactory[] = [
  presenceService,
  webhookService,
  schedulerService,
  executorService,
  webhookDeliveryService,
  webhookRetentionService,
  wakeService,
  consoleService,
];
