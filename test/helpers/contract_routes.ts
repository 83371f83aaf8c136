import { ContractError } from './contract_error.js';

type Json = Record<string, any>;

export interface Operation {
  method: string;
  template: string;
  operation: Json;
}

/** The response an operation declares for one status, and how to name it. */
export interface Declared {
  name: string;
  /** The operation and the response key, for the compiled schemas' cache. */
  id: string;
  response: Json;
}

interface Template {
  template: string;
  pattern: RegExp;
  /** Path parameters: a literal segment matches before a parameter does. */
  parameters: number;
  /** Characters outside parameters: among as many parameters, `/motions/{id}.md` matches before `/motions/{id}`. */
  literal: number;
  item: Json;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'options', 'head', 'trace']);

/** The document's paths, as a concrete request finds its operation and an answer its declared response. */
export class RouteTable {
  private readonly templates: Template[];

  constructor(paths: Record<string, Json>) {
    this.templates = Object.entries(paths)
      .map(([template, item]) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/(\{\w+\})/)
            .map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
            .join('')}$`,
        ),
        parameters: (template.match(/\{\w+\}/g) ?? []).length,
        literal: template.replace(/\{\w+\}/g, '').length,
        item,
      }))
      .sort((a, b) => a.parameters - b.parameters || b.literal - a.literal);
  }

  /** The operation serving a method and a concrete path, if the document has one. */
  operationOf(method: string, path: string): Operation | undefined {
    const lower = method.toLowerCase();
    for (const { template, pattern, item } of this.templates) {
      if (!pattern.test(path)) continue;
      const operation = item[lower];
      if (operation && METHODS.has(lower)) return { method: method.toUpperCase(), template, operation };
    }
    return undefined;
  }

  /** The response the document declares for this answer, or undefined for a path or method it does not serve. */
  responseOf(method: string, path: string, status: number): Declared | undefined {
    const found = this.operationOf(method, path);
    // A path or a method the document does not serve (a 404 or 405 to a made-up request): nothing to hold it to.
    if (!found) return undefined;
    const name = `${found.method} ${found.template} (${found.operation.operationId ?? '?'}) answering ${status}`;
    const responses = (found.operation.responses ?? {}) as Record<string, Json>;
    const key = responses[String(status)]
      ? String(status)
      : responses[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : 'default';
    const response = responses[key];
    if (!response)
      throw new ContractError(
        name,
        `status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`,
      );
    return { name, id: `${found.method} ${found.template} ${key}`, response };
  }
}
