import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../common/auth/actor';
import { CurrentActor } from '../../common/auth/current-actor.decorator';
import { Page, PageOf } from '../../common/http/page.dto';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { SuperadminOnly } from '../../common/permissions/superadmin.guard';
import { BudgetsService } from './budgets.service';
import { BudgetResponse, EntryPointParams, PutBudgetDto } from './dto/budgets.dto';

const RULES =
  "Budgets count tokens (input + output) and USD per UTC day and calendar month, for `global` (every call) and per feature. A call over a budget is refused before anything is sent: it is logged with status `budget_exceeded` and answers 429 with Retry-After at the reset. Stored budgets, and the use they count, belong to the caller's instance (its database): an instance without one falls back to the AI_BUDGET_* variables, never to another instance's.";

@ApiTags('AI administration')
@Controller('admin/ai-budgets')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get()
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'listAiBudgets',
    summary: 'List budget overrides',
    description: `${RULES} Lists the overrides stored in the database, and the global defaults from AI_BUDGET_* variables (source environment) when no global override exists, each with its use so far.`,
  })
  @ApiOkResponse({ type: PageOf(BudgetResponse) })
  list(): Promise<Page<BudgetResponse>> {
    return this.budgets.list();
  }

  @Put(':entry_point_id')
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'putAiBudget',
    summary: 'Set the budget of an entry point',
    description: `${RULES} Replaces the override: a limit left out or null means none.`,
  })
  @ApiOkResponse({ type: BudgetResponse })
  @ApiProblems(422)
  put(
    @CurrentActor() actor: Actor,
    @Param() params: EntryPointParams,
    @Body() dto: PutBudgetDto,
  ): Promise<BudgetResponse> {
    return this.budgets.put(actor.userId, params.entry_point_id, dto);
  }

  @Delete(':entry_point_id')
  @HttpCode(204)
  @SuperadminOnly()
  @ApiOperation({
    operationId: 'deleteAiBudget',
    summary: 'Remove a budget override',
    description:
      'The global defaults from the environment apply again to `global`; a feature has no own limit then.',
  })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(404, 422)
  delete(@Param() params: EntryPointParams): Promise<void> {
    return this.budgets.delete(params.entry_point_id);
  }
}
