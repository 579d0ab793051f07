// Test fixtures: a CRD with a schema, two served versions and a status subresource.

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.switchyard.io' },
  spec: {
    group: 'example.switchyard.io',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                  ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', maximum: 65535 } } } },
                },
              },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
      { name: 'v1alpha1', served: true, storage: false, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

export function widget(name: string, spec: Record<string, unknown> = { size: 1 }, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'example.switchyard.io/v1beta1', kind: 'Widget', metadata: { name, ...metadata }, spec };
}
