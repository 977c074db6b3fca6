import { describe, expect, it } from 'vitest';
import { parseErrorBody, productOf } from '../../../src/api/error-body.js';

describe('productOf', () => {
  it('is the first path segment', () => {
    expect(productOf('/cloud/v1/tasks/abc')).toBe('cloud');
    expect(productOf('/iam/reselling/resellers/7')).toBe('iam');
    expect(productOf('fastedge/v1/apps?x=1')).toBe('fastedge');
    expect(productOf('/streaming')).toBe('streaming');
  });
});

describe('parseErrorBody', () => {
  it('reads a cloud body: message and request_id', () => {
    const text = JSON.stringify({ exception_class: 'NotFoundError', message: 'Floating IP 1 could not be found', request_id: '681423d6-aaaa' });
    expect(parseErrorBody(text, 'application/json')).toEqual({
      body: { exception_class: 'NotFoundError', message: 'Floating IP 1 could not be found', request_id: '681423d6-aaaa' },
      platformMessage: 'Floating IP 1 could not be found',
      requestId: '681423d6-aaaa',
    });
  });

  it('adds the invalid fields of a cloud validation error', () => {
    const text = JSON.stringify({ exception_class: 'ValidationError', message: 'Invalid request', request_id: 'r1', invalid_fields: { flavor_id: ['unknown flavor'] } });
    expect(parseErrorBody(text, 'application/json').platformMessage).toBe('Invalid request: flavor_id: unknown flavor');
  });

  it('reads a cloud LaaS body {code, message}', () => {
    expect(parseErrorBody('{"code": 409, "message": "topic exists"}', 'application/json').platformMessage).toBe('topic exists');
  });

  it('reads a FastEdge JSON body {error}', () => {
    expect(parseErrorBody('{"error":"app is in use"}', 'application/json')).toEqual({ body: { error: 'app is in use' }, platformMessage: 'app is in use', requestId: null });
  });

  it('reads a FastEdge text/plain body', () => {
    expect(parseErrorBody('service temporarily\n unavailable\n', 'text/plain; charset=utf-8')).toEqual({
      body: 'service temporarily\n unavailable\n',
      platformMessage: 'service temporarily unavailable',
      requestId: null,
    });
  });

  it('treats an empty body (FastEdge 404) as no message', () => {
    expect(parseErrorBody('', null)).toEqual({ body: null, platformMessage: null, requestId: null });
  });

  it('reads a streaming body {status, error}', () => {
    const parsed = parseErrorBody('{"status":404,"error":"Not Found. Check the initial parameters"}', 'application/json');
    expect(parsed.platformMessage).toBe('Not Found. Check the initial parameters');
    expect(parsed.body).toEqual({ status: 404, error: 'Not Found. Check the initial parameters' });
  });

  it('reads a streaming players 422 {errors: {field: [msg]}}', () => {
    expect(parseErrorBody('{"errors":{"name":["can\'t be blank"]}}', 'application/json').platformMessage).toBe("name: can't be blank");
  });

  it('reads IAM bodies: errors per field, message, detail', () => {
    expect(parseErrorBody('{"errors":{"email":["Enter a valid email address."],"notification_type":["bad","worse"]}}', 'application/json').platformMessage).toBe(
      'email: Enter a valid email address.; notification_type: bad, worse',
    );
    expect(parseErrorBody('{"message":"JSON parse error - Expecting value"}', 'application/json').platformMessage).toBe('JSON parse error - Expecting value');
    expect(parseErrorBody('{"detail":"You do not have permission to perform this action."}', 'application/json').platformMessage).toBe(
      'You do not have permission to perform this action.',
    );
    expect(parseErrorBody('{"errors":{"non_field_errors":["duplicate"]}}', 'application/json').platformMessage).toBe('duplicate');
  });

  it('parses JSON even when the Content-Type does not say so', () => {
    expect(parseErrorBody('{"error":"x"}', 'text/plain').platformMessage).toBe('x');
  });

  it('keeps malformed JSON as text', () => {
    const parsed = parseErrorBody('{"error": oops', 'application/json');
    expect(parsed.body).toBe('{"error": oops');
    expect(parsed.platformMessage).toBe('{"error": oops');
  });

  it('ignores HTML gateway pages', () => {
    expect(parseErrorBody('<html><body><h1>502 Bad Gateway</h1></body></html>', 'text/html').platformMessage).toBeNull();
  });

  it('returns null message for a JSON body with nothing readable', () => {
    expect(parseErrorBody('{"foo": 1}', 'application/json').platformMessage).toBeNull();
  });

  it('clips very long messages', () => {
    const msg = parseErrorBody('x'.repeat(5000), 'text/plain').platformMessage ?? '';
    expect(msg.length).toBe(500);
    expect(msg.endsWith('…')).toBe(true);
  });
});
