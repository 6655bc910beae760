-- An endpoint added with --allow-private may reach private addresses: those of the host it was added on. With a
-- store shared by several hosts, a worker elsewhere would otherwise post to its own loopback for it. private_host is
-- that host's id: only a worker there delivers the endpoint's events. NULL: a public endpoint, any worker sends it.
ALTER TABLE webhook_endpoints ADD COLUMN private_host TEXT;

-- Endpoints added before this: bound to their owner's registering host; where that is unknown, to no host at all
-- (their events wait until the owner adds the endpoint again), never to every host.
UPDATE webhook_endpoints SET private_host = COALESCE((SELECT host_id FROM agents WHERE agents.name = webhook_endpoints.owner), '')
  WHERE allow_private = 1;
