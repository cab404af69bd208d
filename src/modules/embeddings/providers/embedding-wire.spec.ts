import {
  buildEmbeddingRequest,
  embeddingBaseUrl,
  embeddingErrorMessage,
  EmbeddingTarget,
  parseEmbeddingAnswer,
} from './embedding-wire';

const target = (provider: EmbeddingTarget['provider'], baseUrl: string | null = null): EmbeddingTarget => ({
  provider,
  model: 'm',
  dimensions: 3,
  apiKey: 'k',
  baseUrl,
});

describe('embedding wire formats', () => {
  it('knows each public endpoint, and that Azure has none', () => {
    expect(embeddingBaseUrl(target('openai'))).toBe('https://api.openai.com/v1');
    expect(embeddingBaseUrl(target('cohere'))).toBe('https://api.cohere.com');
    expect(embeddingBaseUrl(target('voyage'))).toBe('https://api.voyageai.com');
    expect(embeddingBaseUrl(target('azure_openai'))).toBeNull();
    expect(embeddingBaseUrl(target('azure_openai', 'https://r.openai.azure.com/'))).toBe(
      'https://r.openai.azure.com',
    );
  });

  it('builds each vendor request', () => {
    const openai = buildEmbeddingRequest(target('openai'), ['a'], 'document', 'https://x');
    expect(openai.url).toBe('https://x/embeddings');
    expect(openai.headers.authorization).toBe('Bearer k');
    const azure = buildEmbeddingRequest(target('azure_openai'), ['a'], 'document', 'https://x');
    expect(azure.url).toBe('https://x/openai/deployments/m/embeddings?api-version=2024-10-21');
    expect(azure.headers['api-key']).toBe('k');
    const cohere = buildEmbeddingRequest(target('cohere'), ['a'], 'query', 'https://x');
    expect(cohere.url).toBe('https://x/v2/embed');
    expect(JSON.parse(cohere.body)).toMatchObject({
      texts: ['a'],
      input_type: 'search_query',
      output_dimension: 3,
    });
    const voyage = buildEmbeddingRequest(target('voyage'), ['a'], 'document', 'https://x');
    expect(voyage.url).toBe('https://x/v1/embeddings');
    expect(JSON.parse(voyage.body)).toMatchObject({
      input: ['a'],
      input_type: 'document',
      output_dimension: 3,
    });
  });

  it('reads answers in input order, by index where the vendor gives one', () => {
    const data = JSON.stringify({
      data: [
        { index: 1, embedding: [4, 5, 6] },
        { index: 0, embedding: [1, 2, 3] },
      ],
    });
    expect(parseEmbeddingAnswer('openai', data, 2)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(parseEmbeddingAnswer('cohere', JSON.stringify({ embeddings: { float: [[1, 2, 3]] } }), 1)).toEqual(
      [[1, 2, 3]],
    );
  });

  it('refuses answers of the wrong shape', () => {
    expect(() => parseEmbeddingAnswer('voyage', JSON.stringify({ data: [] }), 1)).toThrow(
      /0 vectors came back for 1/,
    );
    expect(() => parseEmbeddingAnswer('cohere', JSON.stringify({ embeddings: {} }), 1)).toThrow(
      /embeddings.float/,
    );
    expect(() => parseEmbeddingAnswer('openai', JSON.stringify({ data: [{ embedding: ['x'] }] }), 1)).toThrow(
      /not a list of numbers/,
    );
    expect(() => parseEmbeddingAnswer('openai', 'not json', 1)).toThrow();
  });

  it("quotes each vendor's error sentence", () => {
    expect(embeddingErrorMessage(JSON.stringify({ error: { message: 'bad key' } }))).toBe('bad key');
    expect(embeddingErrorMessage(JSON.stringify({ message: 'cohere says no' }))).toBe('cohere says no');
    expect(embeddingErrorMessage(JSON.stringify({ detail: 'voyage says no' }))).toBe('voyage says no');
    expect(embeddingErrorMessage('<html>')).toBeNull();
  });
});
