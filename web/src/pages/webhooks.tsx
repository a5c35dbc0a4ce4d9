// The member's own webhooks page lives in web/src/webhooks/.
export { WebhookEndpointsPage } from '../webhooks/endpoints-page';
