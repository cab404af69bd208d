import {
  applyGroupPatch,
  applyUserPatch,
  parseActive,
  parsePatchBody,
  PATCH_OP_SCHEMA,
  PatchOperation,
  pickEmail,
  ScimUserState,
} from './scim-patch';
import { ScimError } from './scim.errors';

const USER: ScimUserState = {
  userName: 'Ada@Contoso.onmicrosoft.com',
  email: 'ada@example.com',
  externalId: 'ext-1',
  givenName: 'Ada',
  familyName: 'Lovelace',
  active: true,
  enterprise: {},
};

const ops = (...operations: unknown[]) =>
  parsePatchBody({ schemas: [PATCH_OP_SCHEMA], Operations: operations });

function scimTypeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as ScimError).scimType;
  }
  return 'no error';
}

describe('SCIM PATCH', () => {
  describe('parseActive', () => {
    it.each([
      [true, true],
      [false, false],
      ['True', true],
      ['False', false],
      ['true', true],
      [' FALSE ', false],
    ])('reads %p as %p', (input, expected) => {
      expect(parseActive(input)).toBe(expected);
    });
    it.each([['yes'], [1], [null], [undefined]])('refuses %p', (input) => {
      expect(scimTypeOf(() => parseActive(input))).toBe('invalidValue');
    });
  });

  describe('parsePatchBody', () => {
    it('lowercases op and trims the path', () => {
      expect(ops({ op: 'Replace', path: ' active ', value: 'False' })).toEqual<PatchOperation[]>([
        { op: 'replace', path: 'active', value: 'False' },
      ]);
    });
    it('refuses a missing schema, no operations, an unknown op, a value-less add, a path-less remove and a bad path', () => {
      expect(scimTypeOf(() => parsePatchBody({ Operations: [{ op: 'add', path: 'a', value: 1 }] }))).toBe(
        'invalidValue',
      );
      expect(scimTypeOf(() => ops())).toBe('invalidValue');
      expect(scimTypeOf(() => ops({ op: 'move', path: 'active', value: true }))).toBe('invalidValue');
      expect(scimTypeOf(() => ops({ op: 'add', path: 'active' }))).toBe('invalidValue');
      expect(scimTypeOf(() => ops({ op: 'remove' }))).toBe('noTarget');
      expect(scimTypeOf(() => ops({ op: 'add', path: 'a b', value: 1 }))).toBe('invalidPath');
    });
  });

  describe('applyUserPatch', () => {
    it('replaces active from the string "False" and leaves the rest', () => {
      expect(applyUserPatch(USER, ops({ op: 'Replace', path: 'active', value: 'False' }))).toEqual({
        ...USER,
        active: false,
      });
    });

    it('reads name sub-paths, the core schema URN prefix and the emails filter path', () => {
      const next = applyUserPatch(
        USER,
        ops(
          { op: 'replace', path: 'name.givenName', value: 'Grace' },
          {
            op: 'replace',
            path: 'urn:ietf:params:scim:schemas:core:2.0:User:name.familyName',
            value: 'Hopper',
          },
          { op: 'add', path: 'emails[type eq "work"].value', value: 'grace@example.com' },
        ),
      );
      expect(next).toEqual({
        ...USER,
        givenName: 'Grace',
        familyName: 'Hopper',
        email: 'grace@example.com',
      });
    });

    it('keeps userName and the work email apart: a change of one leaves the other', () => {
      const mail = applyUserPatch(
        USER,
        ops({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'a.lovelace@example.com' }),
      );
      expect(mail).toEqual({ ...USER, email: 'a.lovelace@example.com' });
      const login = applyUserPatch(mail, ops({ op: 'Replace', path: 'userName', value: 'Ada@Contoso.com' }));
      expect(login).toEqual({ ...USER, email: 'a.lovelace@example.com', userName: 'Ada@Contoso.com' });
      // Another type than work is not the account's address.
      expect(
        applyUserPatch(
          USER,
          ops({ op: 'add', path: 'emails[type eq "home"].value', value: 'h@example.com' }),
        ),
      ).toEqual(USER);
      expect(
        scimTypeOf(() =>
          applyUserPatch(USER, ops({ op: 'replace', path: 'emails[type eq "work"].value', value: 'nope' })),
        ),
      ).toBe('invalidValue');
    });

    it('keeps the enterprise extension: URN paths (Entra), the whole object (Okta), manager as {value}', () => {
      const urn = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
      const entra = applyUserPatch(
        USER,
        ops(
          { op: 'Add', path: `${urn}:department`, value: 'Research' },
          { op: 'Add', path: `${urn}:manager`, value: 'mgr-1' },
          { op: 'Add', path: `${urn}:employeeNumber`, value: '42' },
          { op: 'Replace', value: { [`${urn}:costCenter`]: 'CC-7' } },
        ),
      );
      expect(entra.enterprise).toEqual({
        department: 'Research',
        manager: { value: 'mgr-1' },
        employeeNumber: '42',
        costCenter: 'CC-7',
      });
      const removed = applyUserPatch(entra, ops({ op: 'Remove', path: `${urn}:manager` }));
      expect(removed.enterprise).not.toHaveProperty('manager');
      const okta = applyUserPatch(
        USER,
        ops({ op: 'replace', value: { [urn]: { division: 'R&D', manager: { value: 'm2' }, unknown: 1 } } }),
      );
      expect(okta.enterprise).toEqual({ division: 'R&D', manager: { value: 'm2' } });
    });

    it('applies a no-path replace with an object value, dotted keys included (Entra)', () => {
      const next = applyUserPatch(
        USER,
        ops({
          op: 'Replace',
          value: { active: false, 'name.givenName': 'G', externalId: 'ext-2', title: 'CEO' },
        }),
      );
      expect(next).toEqual({ ...USER, active: false, givenName: 'G', externalId: 'ext-2' });
    });

    it('removes optional attributes and refuses removing required ones', () => {
      expect(applyUserPatch(USER, ops({ op: 'remove', path: 'externalId' })).externalId).toBeNull();
      expect(applyUserPatch(USER, ops({ op: 'remove', path: 'name' }))).toEqual({
        ...USER,
        givenName: '',
        familyName: '',
      });
      expect(scimTypeOf(() => applyUserPatch(USER, ops({ op: 'remove', path: 'userName' })))).toBe(
        'invalidValue',
      );
      expect(scimTypeOf(() => applyUserPatch(USER, ops({ op: 'remove', path: 'active' })))).toBe(
        'invalidValue',
      );
    });

    it('ignores attributes Verity does not store', () => {
      expect(
        applyUserPatch(
          USER,
          ops(
            { op: 'add', path: 'phoneNumbers[type eq "work"].value', value: '+1' },
            { op: 'add', path: 'addresses[type eq "work"].locality', value: 'Paris' },
          ),
        ),
      ).toEqual(USER);
    });

    it('takes the work email, else the primary one, else the first', () => {
      expect(pickEmail([{ value: 'a@x' }, { value: 'b@x', primary: true }])).toBe('b@x');
      expect(
        pickEmail([
          { value: 'p@x', type: 'home', primary: true },
          { value: 'w@x', type: 'work' },
        ]),
      ).toBe('w@x');
      expect(
        pickEmail([
          { value: 'a@x', type: 'home' },
          { value: 'w@x', type: 'work' },
        ]),
      ).toBe('w@x');
      expect(pickEmail([{ value: 'a@x' }])).toBe('a@x');
      expect(pickEmail(undefined)).toBeUndefined();
    });
  });

  describe('applyGroupPatch', () => {
    const GROUP = { displayName: 'fin:editor', externalId: null, members: ['u1', 'u2'] };

    it('adds members with path "members" and removes them by a value filter', () => {
      const next = applyGroupPatch(
        GROUP,
        ops(
          { op: 'Add', path: 'members', value: [{ value: 'U3' }] },
          { op: 'Remove', path: 'members[value eq "u1"]' },
        ),
      );
      expect(next.members).toEqual(['u2', 'u3']);
    });

    it('removes with a value list (Entra), several ids joined by or, or all members without a value', () => {
      expect(
        applyGroupPatch(GROUP, ops({ op: 'remove', path: 'members', value: [{ value: 'u2' }] })).members,
      ).toEqual(['u1']);
      expect(
        applyGroupPatch(GROUP, ops({ op: 'remove', path: 'members[value eq "u1" or value eq "u2"]' }))
          .members,
      ).toEqual([]);
      expect(applyGroupPatch(GROUP, ops({ op: 'remove', path: 'members' })).members).toEqual([]);
    });

    it('replaces members, externalId and displayName, with or without a path', () => {
      expect(
        applyGroupPatch(GROUP, ops({ op: 'replace', path: 'members', value: [{ value: 'u9' }] })).members,
      ).toEqual(['u9']);
      expect(
        applyGroupPatch(
          GROUP,
          ops({ op: 'replace', value: { externalId: 'g-1', displayName: 'fin:viewer', id: 'ignored' } }),
        ),
      ).toEqual({ ...GROUP, externalId: 'g-1', displayName: 'fin:viewer' });
    });

    it('refuses a members filter other than value eq, adding through a filter path, and members without value', () => {
      expect(
        scimTypeOf(() => applyGroupPatch(GROUP, ops({ op: 'remove', path: 'members[display eq "x"]' }))),
      ).toBe('invalidPath');
      expect(
        scimTypeOf(() =>
          applyGroupPatch(GROUP, ops({ op: 'add', path: 'members[value eq "x"]', value: [{ value: 'x' }] })),
        ),
      ).toBe('invalidPath');
      expect(
        scimTypeOf(() =>
          applyGroupPatch(GROUP, ops({ op: 'add', path: 'members', value: [{ display: 'x' }] })),
        ),
      ).toBe('invalidValue');
    });
  });
});
