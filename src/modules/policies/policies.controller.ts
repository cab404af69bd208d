import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { SlugParams } from '../../common/http/slug-params.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { CurrentSpace } from '../../common/permissions/current-space.decorator';
import type { SpaceAccess } from '../../common/permissions/space-access.port';
import { SpaceRole } from '../../common/permissions/space-role.guard';
import {
  ComplianceSummaryResponse,
  CreatePolicyDto,
  DryRunPolicyDto,
  DryRunResponse,
  EvaluateAllResponse,
  EvaluateResponse,
  EvaluationPageResponse,
  ListEvaluationsQuery,
  ListPoliciesQuery,
  PolicyPageResponse,
  PolicyPathParams,
  PolicyResponse,
  PolicyTemplateResponse,
  ProductViolationsPathParams,
  UpdatePolicyDto,
  ViolationResponse,
} from './dto/policy.dto';
import { PoliciesService } from './policies.service';
import { PolicyEvaluationsService } from './policy-evaluations.service';

const RULE_422 =
  'A `rule_expression` that is not valid CEL, names an unknown field or is not boolean is 422 naming its position (`position`, `line`, `column`); nothing is stored.';

@ApiTags('Policies')
@Controller('spaces/:slug/policies')
export class PoliciesController {
  constructor(
    private readonly policies: PoliciesService,
    private readonly evaluations: PolicyEvaluationsService,
  ) {}

  @Post()
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'createPolicy',
    summary: 'Create a policy (edit access)',
    description: `${RULE_422} A duplicate name in the space is 409. An enabled policy is evaluated over the space's products in the background at once.`,
  })
  @ApiCreatedResponse({ type: PolicyResponse })
  @ApiProblems(409, 422)
  create(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: CreatePolicyDto,
  ): Promise<PolicyResponse> {
    return this.policies.create(actor, access, dto);
  }

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listPolicies',
    summary: 'List the policies of a space',
    description:
      'By name. Archived policies only with `include_archived=true`. `{items, total}` with `skip`/`limit` (at most 200).',
  })
  @ApiOkResponse({ type: PolicyPageResponse })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Query() query: ListPoliciesQuery,
  ): Promise<PolicyPageResponse> {
    return this.policies.list(access, query);
  }

  @Get('compliance-summary')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getComplianceSummary',
    summary: 'Compliance of the space with its enabled policies',
    description:
      'From the latest evaluations of the enabled, unarchived policies. A product is compliant when none of them finds it ' +
      'non-compliant or in error; `compliance_rate` is the percentage of compliant products (100 for an empty space).',
  })
  @ApiOkResponse({ type: ComplianceSummaryResponse })
  complianceSummary(
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<ComplianceSummaryResponse> {
    return this.evaluations.complianceSummary(access);
  }

  @Get('templates')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listPolicyTemplates',
    summary: 'Ready-made policies; every rule is valid CEL',
    description:
      'Ready-made policies to start from; every rule is a valid CEL expression over the product fields.',
  })
  @ApiOkResponse({ type: PolicyTemplateResponse, isArray: true })
  templates(@Param() _params: SlugParams): PolicyTemplateResponse[] {
    return this.policies.templates();
  }

  @Post('evaluate-all')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'evaluateAllPolicies',
    summary: 'Evaluate every enabled, unarchived policy now (edit access)',
    description:
      'Every product of the space against every enabled, unarchived policy. A rule that fails at run time for a product ' +
      'records `error` for it and counts in `errors`; the run goes on. A product that turns non-compliant after a recorded ' +
      'compliant or error outcome emits `policy.violated`. Rules made of comparisons, `in`, `&&`/`||`/`!`, `size()`, ' +
      '`has()`, string tests and `exists`/`all` over tags and people are evaluated inside the database (the same ' +
      'outcomes, faster on large spaces); see docs/decisions.md, "Policies compiled to SQL".',
  })
  @ApiOkResponse({ type: EvaluateAllResponse })
  evaluateAll(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
  ): Promise<EvaluateAllResponse> {
    return this.evaluations.evaluateAll(actor, access);
  }

  @Post('dry-run')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'dryRunPolicy',
    summary: 'Which products would violate a draft rule (edit access)',
    description: `Evaluates the rule over every product of the space and stores nothing. ${RULE_422}`,
  })
  @ApiOkResponse({ type: DryRunResponse })
  @ApiProblems(422)
  dryRun(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() _params: SlugParams,
    @Body() dto: DryRunPolicyDto,
  ): Promise<DryRunResponse> {
    return this.evaluations.dryRun(actor, access, dto);
  }

  @Get(':id')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'getPolicy',
    summary: 'Get a policy',
    description: 'One policy of the space with its CEL rule and when it was last evaluated.',
  })
  @ApiOkResponse({ type: PolicyResponse })
  @ApiProblems(422)
  get(@CurrentSpace() access: SpaceAccess, @Param() params: PolicyPathParams): Promise<PolicyResponse> {
    return this.policies.get(access, params.id);
  }

  @Patch(':id')
  @SpaceRole('editor')
  @ApiOperation({
    operationId: 'updatePolicy',
    summary: 'Update a policy (edit access)',
    description: `Partial. ${RULE_422} A changed rule drops the old evaluations and is re-evaluated in the background.`,
  })
  @ApiOkResponse({ type: PolicyResponse })
  @ApiProblems(409, 422)
  update(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
    @Body() dto: UpdatePolicyDto,
  ): Promise<PolicyResponse> {
    return this.policies.update(actor, access, params.id, dto);
  }

  @Delete(':id')
  @SpaceRole('editor')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deletePolicy',
    summary: 'Delete a policy and its evaluations (edit access)',
    description:
      'Deletes the policy with every evaluation recorded for it; 404 when the space has no such policy.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(422)
  delete(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
  ): Promise<void> {
    return this.policies.delete(actor, access, params.id);
  }

  @Post(':id/archive')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'archivePolicy',
    summary: 'Archive a policy (edit access)',
    description:
      'Archived policies leave lists (unless `include_archived`), summaries and violations. Archiving an archived policy changes nothing.',
  })
  @ApiOkResponse({ type: PolicyResponse })
  @ApiProblems(422)
  archive(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
  ): Promise<PolicyResponse> {
    return this.policies.setArchived(actor, access, params.id, true);
  }

  @Post(':id/unarchive')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'unarchivePolicy',
    summary: 'Unarchive a policy (edit access)',
    description: 'An enabled policy is re-evaluated in the background.',
  })
  @ApiOkResponse({ type: PolicyResponse })
  @ApiProblems(422)
  unarchive(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
  ): Promise<PolicyResponse> {
    return this.policies.setArchived(actor, access, params.id, false);
  }

  @Post(':id/evaluate')
  @SpaceRole('editor')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'evaluatePolicy',
    summary: 'Evaluate a policy against every product of the space (edit access)',
    description:
      'Runs whether or not the policy is enabled or archived. A rule that fails at run time for a product records `error` ' +
      'for it and counts in `errors`; the run goes on.',
  })
  @ApiOkResponse({ type: EvaluateResponse })
  @ApiProblems(422)
  evaluate(
    @CurrentActor() actor: Actor,
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
  ): Promise<EvaluateResponse> {
    return this.evaluations.evaluate(actor, access, params.id);
  }

  @Get(':id/evaluations')
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listPolicyEvaluations',
    summary: 'The latest evaluation of each product against a policy',
    description:
      'Non-compliant first, then errors, then compliant. Filter by `status`. `{items, total}` with `skip`/`limit`.',
  })
  @ApiOkResponse({ type: EvaluationPageResponse })
  @ApiProblems(422)
  evaluationsOf(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: PolicyPathParams,
    @Query() query: ListEvaluationsQuery,
  ): Promise<EvaluationPageResponse> {
    return this.evaluations.evaluations(access, params.id, query);
  }
}

@ApiTags('Policies')
@Controller('spaces/:slug/products/:pid/violations')
export class ProductViolationsController {
  constructor(private readonly evaluations: PolicyEvaluationsService) {}

  @Get()
  @SpaceRole('viewer')
  @ApiOperation({
    operationId: 'listProductViolations',
    summary: 'Active violations of a product',
    description:
      'From the enabled, unarchived policies only, most severe first. 404 when the product is not in the space.',
  })
  @ApiOkResponse({ type: ViolationResponse, isArray: true })
  @ApiProblems(422)
  list(
    @CurrentSpace() access: SpaceAccess,
    @Param() params: ProductViolationsPathParams,
  ): Promise<ViolationResponse[]> {
    return this.evaluations.productViolations(access, params.pid);
  }
}
