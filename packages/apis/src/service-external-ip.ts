/** ServiceExternalIP annotation keys (Antrea's), shared by the controller that allocates and the agents that host the IPs. */

/**
 * Service annotation naming the ExternalIPPool a `type: LoadBalancer` Service takes its
 * `status.loadBalancer.ingress[0].ip` from. The agents find the pool of an ingress IP (and so the
 * pool's `spec.nodeSelector`) through this annotation on the Service.
 */
export const SERVICE_EXTERNAL_IP_POOL_ANNOTATION = 'service.antrea.io/external-ip-pool';

/**
 * Service annotation (`"true"`) letting Services that request the same `spec.loadBalancerIP`
 * share it; only Services that all carry it share an IP.
 */
export const SERVICE_ALLOW_SHARED_IP_ANNOTATION = 'service.antrea.io/allow-shared-load-balancer-ip';
