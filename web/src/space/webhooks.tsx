// The Space's webhook and approval pages live in web/src/webhooks/ and web/src/approvals/.
export { ApprovalsPage } from '../approvals/approvals-page';
export { SpaceWebhooksPage } from '../webhooks/space-page';
