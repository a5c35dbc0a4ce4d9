// Renders the API reference at /docs from this host's own contract
// (src/web/docs.ts serves the page, Swagger UI's bundle and this file).

const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');
// Swagger UI styles its dark theme under `html.dark-mode`; follow the system, as the rest of Atrium does.
const followScheme = () => document.documentElement.classList.toggle('dark-mode', darkScheme.matches);
followScheme();
darkScheme.addEventListener('change', followScheme);

SwaggerUIBundle({
  url: '/v0/openapi.json',
  dom_id: '#swagger-ui',
  // The plain layout: no top bar with a field for loading some other document.
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  // Links to an operation (#/Events/listEvents) open it.
  deepLinking: true,
  // The default would send the contract to a public validator and show its badge.
  validatorUrl: null,
  // Never take the document's address or options from the page's query string.
  queryConfigEnabled: false,
  docExpansion: 'list',
  filter: true,
  displayOperationId: false,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
