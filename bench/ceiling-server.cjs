// A bare Nest-on-Express route: the ceiling the real API's routes are compared with.
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

class HelloController {
  hello() {
    return { ok: true };
  }
}
Get('hello')(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));
Controller()(HelloController);

class CeilingModule {}
Module({ controllers: [HelloController] })(CeilingModule);

NestFactory.create(CeilingModule, { logger: ['error'] }).then((app) =>
  app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1'),
);
