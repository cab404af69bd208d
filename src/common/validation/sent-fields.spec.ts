import { sentFields } from './sent-fields';

class UpdateThingDto {
  name?: string;
  url?: string | null;
  is_enabled?: boolean;
}

describe('sentFields', () => {
  it('lists the fields a body sent, null and false included, sorted', () => {
    const dto = Object.assign(new UpdateThingDto(), { url: null, is_enabled: false });
    expect(sentFields(dto)).toEqual(['is_enabled', 'url']);
  });

  it('leaves out declared fields the body did not send', () => {
    expect(sentFields(Object.assign(new UpdateThingDto(), { name: undefined }))).toEqual([]);
  });
});
