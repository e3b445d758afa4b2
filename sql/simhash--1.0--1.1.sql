-- simhash 1.0 -> 1.1.
--
-- There is no sql/simhash--1.1.sql on purpose: CREATE EXTENSION simhash
-- (version 1.1) finds no direct script, so PostgreSQL runs simhash--1.0.sql
-- and then this file.  One definition of every 1.1 object, here, serves
-- fresh installs and upgrades alike: a full 1.1 script would repeat the 461
-- lines of 1.0 plus this file, and any object added here but forgotten there
-- (or defined differently there) would make an upgraded database differ from
-- a fresh one.  Every fresh install and every test run exercises this path.
-- simhash--1.0.sql is released and must not change; later versions add a
-- simhash--1.1--1.2.sql the same way.  test sql/upgrade.sql checks that an
-- upgraded 1.0 database has exactly the objects listed in its expected file.
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit

-- ==== simhash('literal') fingerprints the text ====
