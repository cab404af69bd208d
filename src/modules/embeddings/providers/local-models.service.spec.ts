import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TINY_MODEL_DIMENSIONS, writeTinyModel } from '../../../../test/support/local-model';
import { AppConfig, loadConfig } from '../../../config/app.config';
import { LocalModelRefused, LocalModelsService } from './local-models.service';

describe('LocalModelsService', () => {
  let root: string;
  const service = (env: Record<string, string> = {}, modelsDir: string | null = root) =>
    new LocalModelsService(
      loadConfig({
        DATA_DIR: root,
        ...(modelsDir ? { EMBEDDING_LOCAL_MODELS_DIR: modelsDir } : {}),
        ...env,
      }) as AppConfig,
    );

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'local-models-'));
    writeTinyModel(root, 'tiny');
    writeTinyModel(root, 'tiny-f16', { dtype: 'F16' });
    writeTinyModel(root, 'broken', { extraRows: 1 });
    writeTinyModel(root, 'bad-header', { weights: Buffer.from('not a safetensors file') });
    writeFileSync(join(root, 'a-file'), 'not a directory');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('answers the shape of a model directory from its header', async () => {
    expect(await service().inspect('tiny')).toEqual({ vocabSize: expect.any(Number), dimensions: 16 });
  });

  it('refuses names that are not a plain directory name, not a directory there, or any without a root', async () => {
    const models = service();
    for (const name of ['../tiny', 'x/../tiny', '/etc', '..', '.', '.hidden', 'tiny/']) {
      await expect(models.inspect(name)).rejects.toThrow(/not a plain directory name/);
    }
    await expect(models.inspect('absent')).rejects.toThrow(/No model directory "absent"/);
    await expect(models.inspect('a-file')).rejects.toThrow(LocalModelRefused);
    await expect(models.inspect('bad-header')).rejects.toThrow(/header length .* does not fit/);
    await expect(service({}, null).inspect('tiny')).rejects.toThrow(/EMBEDDING_LOCAL_MODELS_DIR is not set/);
  });

  it('moves idle → warming → ready, loads once and reuses the model', async () => {
    const models = service();
    expect(models.state('tiny')).toEqual({ status: 'idle', error: null });
    const loading = models.warm('tiny');
    expect(models.state('tiny').status).toBe('warming');
    const model = await loading;
    expect(model.dimensions).toBe(TINY_MODEL_DIMENSIONS);
    expect(models.state('tiny')).toEqual({ status: 'ready', error: null });
    expect(await models.warm('tiny')).toBe(model);
    expect(await models.warm('tiny', { retry: true })).toBe(model);
  });

  it('replaces the model when another one is asked for', async () => {
    const models = service();
    const first = await models.warm('tiny');
    const second = await models.warm('tiny-f16');
    expect(second).not.toBe(first);
    expect(models.state('tiny').status).toBe('idle');
    expect(models.state('tiny-f16').status).toBe('ready');
    expect(await models.warm('tiny')).not.toBe(first);
  });

  it('records a failed load with its reason, and loads again only when told to retry', async () => {
    const models = service();
    await expect(models.warm('broken')).rejects.toThrow(/embedding table has \d+ rows/);
    expect(models.state('broken')).toEqual({
      status: 'failed',
      error: expect.stringMatching(/embedding table has \d+ rows/),
    });
    const again = models.warm('broken');
    await expect(again).rejects.toThrow();
    expect(models.warm('broken')).toBe(again);
    writeTinyModel(root, 'broken');
    expect((await models.warm('broken', { retry: true })).dimensions).toBe(TINY_MODEL_DIMENSIONS);
    expect(models.state('broken').status).toBe('ready');
  });

  it('checks an environment model at start and takes its size from it unless EMBEDDING_DIMENSIONS is set', async () => {
    const fromModel = service({ EMBEDDING_MODEL: 'tiny' });
    await fromModel.onModuleInit();
    expect(fromModel.dimensionsOfEnvironment(384)).toBe(16);
    const matching = service({ EMBEDDING_MODEL: 'tiny', EMBEDDING_DIMENSIONS: '16' });
    await matching.onModuleInit();
    expect(matching.dimensionsOfEnvironment(384)).toBe(16);
    await expect(
      service({ EMBEDDING_MODEL: 'tiny', EMBEDDING_DIMENSIONS: '32' }).onModuleInit(),
    ).rejects.toThrow(/EMBEDDING_DIMENSIONS is 32 but the model "tiny" makes vectors of 16/);
    await expect(service({ EMBEDDING_MODEL: 'absent' }).onModuleInit()).rejects.toThrow(
      /EMBEDDING_MODEL: No model directory "absent"/,
    );
    const builtin = service();
    await builtin.onModuleInit();
    expect(builtin.dimensionsOfEnvironment(384)).toBe(384);
  });
});
